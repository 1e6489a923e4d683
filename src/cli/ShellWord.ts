/**
 * `text` as one word of a POSIX shell, for a command printed to be copied: as is when it holds nothing the
 * shell reads specially, otherwise in single quotes (a quote inside closed, escaped and opened again).
 */
export const shellWord = (text: string) => /^[A-Za-z0-9@%+=:,./_-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`
