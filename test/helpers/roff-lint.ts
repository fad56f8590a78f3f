/**
 * A small lint of the man pages chatctl generates, for machines without groff: the requests the pages may use
 * (man(7) macros), the escapes they may hold, and nothing that roff would misread (a line starting with a
 * quote, a character beyond ASCII whose reading depends on the encoding groff assumes).
 */
const REQUESTS = new Set(['TH', 'SH', 'SS', 'PP', 'TP', 'B', 'I', 'BR', 'RS', 'RE', 'nf', 'fi', 'br']);

/** \e \- \& \fB \fI \fR \[u2019]: a backslash, a minus, a zero-width guard, fonts, a Unicode character. */
const ESCAPE = /\\(e|-|&|f[BIR]|\[u[0-9A-F]{4,5}\])/y;

/** What is wrong with a page, one line each (empty: nothing). */
export function lintRoff(page: string): string[] {
  const lines = page.replace(/\n$/, '').split('\n');
  const problems: string[] = [];
  const first = lines.findIndex((l) => !l.startsWith('.\\"'));
  if (!lines[first]?.startsWith('.TH ')) return ['the page does not start with .TH'];
  lines.forEach((line, i) => {
    const at = `line ${i + 1}`;
    if (line.startsWith('.\\"')) return;
    if (line.startsWith("'")) problems.push(`${at}: a line starting with ' is a request`);
    const request = /^\.(\S+)/.exec(line)?.[1];
    if (request !== undefined && !REQUESTS.has(request)) problems.push(`${at}: unknown request .${request}`);
    for (let j = line.indexOf('\\'); j !== -1; j = line.indexOf('\\', j + 1)) {
      ESCAPE.lastIndex = j;
      const m = ESCAPE.exec(line);
      if (!m) {
        problems.push(`${at}: unknown escape ${line.slice(j, j + 2)}`);
        continue;
      }
      j += m[0].length - 1;
    }
    if (/[^\t -~]/.test(line)) problems.push(`${at}: a character beyond ASCII (write it as \\[uXXXX])`);
  });
  return problems;
}
