/**
 * What --jq and --template make of a command's result. Both run once over the whole result (a list as one
 * array), or once per record with `--format ndjson`; both are checked when options are parsed, so a bad
 * expression or template is a usage error before anything is sent. Their engines load only when used.
 */

export interface TransformFlags {
  jq?: string;
  template?: string;
}

/** The text printed for some inputs: the program or template run once on each. */
export type Transform = (inputs: readonly unknown[]) => Promise<string>;

export const transforms = (flags: TransformFlags): boolean => flags.jq !== undefined || flags.template !== undefined;

/** A usage error unless the expression or template given compiles. */
export async function checkTransform(flags: TransformFlags): Promise<void> {
  if (flags.jq !== undefined) await (await import('./jq.js')).checkJq(flags.jq);
  if (flags.template !== undefined) await (await import('./template.js')).checkTemplate(flags.template);
}

/** The transform the flags ask for (one of them is given). */
export async function loadTransform(flags: TransformFlags, settings: { color: boolean; nowMs: () => number }): Promise<Transform> {
  const { jq, template } = flags;
  if (jq !== undefined) {
    const { runJq } = await import('./jq.js');
    return (inputs) => runJq(jq, inputs);
  }
  if (template === undefined) throw new Error('neither --jq nor --template is given');
  const render = await (await import('./template.js')).compileTemplate(template, settings);
  return async (inputs) => inputs.map(render).join('');
}
