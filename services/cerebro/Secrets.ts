/** The kinds of secret Cerebro refuses to store, as the error names them (never the secret itself). */
export const SecretKind = {
  api_key: "an API key",
  password: "a password",
  bearer_token: "a bearer token",
  jwt: "a JWT",
  private_key: "a private key",
  card_number: "a card number",
  random_token: "a long random token (an access key or secret)"
} as const
export type SecretKind = keyof typeof SecretKind

const API_KEY =
  /(?:\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|\bsk_(?:live|test)_[A-Za-z0-9]{16,}|\bbrein_sk_[A-Za-z0-9_-]{16,}|\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}|\b(?:AKIA|ASIA)[0-9A-Z]{16}\b|\bxox[abposr]-[A-Za-z0-9-]{10,}|\bAIza[0-9A-Za-z_-]{35})/
const PRIVATE_KEY = /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----/
const BEARER = /\bBearer\s+[A-Za-z0-9._~+/-]{16,}/i
const JWT = /\beyJ[A-Za-z0-9_-]{6,}\.eyJ[A-Za-z0-9_-]{6,}\.[A-Za-z0-9_-]{6,}/
// "password: x" always; "la clave es x" only when x looks like one (a digit or a symbol): "la clave es escuchar" is advice.
const PASSWORD_LABELLED = /\b(?:password|passwd|passphrase|pwd|contrase[ñn]a)\s*[:=]\s*\S{3,}/i
const LOOKS_LIKE_ONE = String.raw`(?=\S*[\d!@#$%^&*?+=])\S{4,}`
const PASSWORD_SAID = new RegExp(String.raw`\b(?:password|passwd|contrase[ñn]a)\s*(?:[:=]|\b(?:es|is)\b)?\s*${LOOKS_LIKE_ONE}`, "i")
const KEY_SAID = new RegExp(String.raw`\b(?:clave(?: de acceso)?|pin)\s*(?:[:=]|\s(?:es|is)\b)\s*${LOOKS_LIKE_ONE}`, "i")
const DIGIT_RUN = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g
const TOKEN = /[A-Za-z0-9+/=]{32,}/g

const luhn = (digits: string) => {
  let sum = 0
  for (let i = 0; i < digits.length; i++) {
    const d = Number(digits[digits.length - 1 - i])
    sum += i % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d
  }
  return sum % 10 === 0
}

const isCard = (text: string) =>
  Array.from(text.matchAll(DIGIT_RUN)).some((m) => {
    const digits = m[0].replace(/[ -]/g, "")
    return digits.length >= 13 && digits.length <= 19 && luhn(digits)
  })

const entropy = (s: string) => {
  const counts = new Map<string, number>()
  for (const c of s) counts.set(c, (counts.get(c) ?? 0) + 1)
  let bits = 0
  for (const n of counts.values()) bits -= (n / s.length) * Math.log2(n / s.length)
  return bits
}

// Mixed case and digits at high entropy: a base62/base64 secret, not a word, a slug or a hex digest.
const isRandomToken = (text: string) =>
  Array.from(text.matchAll(TOKEN)).some(([t]) => /[a-z]/.test(t) && /[A-Z]/.test(t) && /\d/.test(t) && entropy(t) >= 4)

/** The first kind of secret the text holds, if any. */
export const secretIn = (text: string): SecretKind | undefined => {
  if (PRIVATE_KEY.test(text)) return "private_key"
  if (API_KEY.test(text)) return "api_key"
  if (JWT.test(text)) return "jwt"
  if (BEARER.test(text)) return "bearer_token"
  if (PASSWORD_LABELLED.test(text) || PASSWORD_SAID.test(text) || KEY_SAID.test(text)) return "password"
  if (isCard(text)) return "card_number"
  if (isRandomToken(text)) return "random_token"
  return undefined
}
