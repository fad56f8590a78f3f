/**
 * Help text fitted to the terminal (80 columns when piped), as commander fits the options it lists. A line
 * wraps at spaces, its continuation indented under its text: under the description of a `NAME  description`
 * row, else under the line's own indentation. Example commands (indented `chatctl ...` lines) never wrap, so
 * they stay whole to copy.
 */

/** Below this, wrapping makes more noise than it saves (commander's own threshold). */
const MIN_WIDTH = 40;

const EXAMPLE = /^\s+(\$ )?chatctl /;

function wrapLine(line: string, width: number): string[] {
  if (line.length <= width || EXAMPLE.test(line)) return [line];
  const indent = /^\s*/.exec(line)![0].length;
  // A row of a two-column list: its description column, when the description has room there (20 columns).
  const column = /^(\s*\S.*?\s{2,})\S/.exec(line)?.[1]?.length;
  const hang = column !== undefined && column <= width - 20 ? column : indent;
  const out: string[] = [];
  let current = line.slice(0, hang);
  // Words as they come, each with the spaces before it, so a line's own spacing is kept where it fits.
  for (const [, spaces, word] of line.slice(hang).matchAll(/(\s*)(\S+)/g)) {
    const fresh = current.trim() === '';
    if (!fresh && current.length + spaces!.length + word!.length > width) {
      out.push(current);
      current = ' '.repeat(hang) + word;
    } else current += (fresh ? '' : spaces) + word;
  }
  out.push(current);
  return out;
}

export function wrapText(text: string, width: number): string {
  if (width < MIN_WIDTH) return text;
  return text
    .split('\n')
    .flatMap((line) => wrapLine(line, width))
    .join('\n');
}
