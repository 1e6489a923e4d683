export const NOT_FIGURES = [
  {
    what: "digits inside a word or an identifier",
    examples: ["G20", "r3", "company:123", "co_81", "COVID-19", "4G", "3er", "20kg"],
    pattern:
      /(?<![\p{L}\p{N}_])(?=[\p{L}\p{N}_:@/.#-]*\p{L})(?=[\p{L}\p{N}_:@/.#-]*\p{N})(?!\p{N}+(?:[.,]\p{N}+)*(?:k|K|M|MM|mil)?(?![\p{L}\p{N}_]))[\p{L}\p{N}_]+(?:[:@/.#-][\p{L}\p{N}_]+)*/gu
  },
  {
    what: "a RUT",
    examples: ["76.123.456-7", "12.345.678-K", "9876543-k"],
    pattern: /(?<![\p{L}\p{N}.])(?:\d{1,2}(?:\.\d{3}){2}|\d{7,8})-[\dkK](?![\p{L}\p{N}])/gu
  },
  {
    what: "an RFC",
    examples: ["GODE561231GR8", "ABC010203XY1"],
    pattern: /(?<![\p{L}\p{N}])[A-ZÑ&]{3,4}\d{6}[A-Z\d]{3}(?![\p{L}\p{N}])/gu
  },
  {
    what: "an ISO date, month or timestamp",
    examples: ["2026-01-15", "2026-01", "2026-01-01T00:00:00.000Z", "2026-03-04 10:15"],
    pattern: /(?<!\d)\d{4}-\d{2}(?:-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?)?(?!\d)/gu
  },
  {
    what: "a dd/mm/yyyy date",
    examples: ["15/01/2026", "1/2/26", "15-01-2026"],
    pattern: /(?<![\d/-])\d{1,2}([/-])\d{1,2}\1\d{2,4}(?![\d/-])/gu
  },
  {
    what: "the number of a list item",
    examples: ["1.", "2)", "10."],
    pattern: /^[^\S\n]*\d{1,3}[.)](?=[^\S\n])/gmu
  },
  {
    what: "a time of day",
    examples: ["14:30", "09:05:00", "9:15"],
    pattern: /(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])/gu
  }
] as const

/** The ranges of a text that hold no figure, whatever digits they have. */
export const notFigureRanges = (text: string): ReadonlyArray<readonly [number, number]> =>
  NOT_FIGURES.flatMap(({ pattern }) => Array.from(text.matchAll(pattern), (m) => [m.index, m.index + m[0].length] as const))
