/** `n` and the noun in the number it takes: "1 row", "2 rows", "0 rows". */
export const counted = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`
