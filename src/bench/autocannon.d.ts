declare module "autocannon" {
  interface Options {
    readonly url: string
    readonly connections?: number
    readonly duration?: number
    readonly method?: "GET" | "POST"
    readonly headers?: Readonly<Record<string, string>>
    readonly body?: string
    readonly timeout?: number
    /** requests per second across all connections (unbounded when unset) */
    readonly overallRate?: number
  }
  interface Instance {
    stop(): void
  }
  function autocannon(options: Options, done: (error: unknown, result: unknown) => void): Instance
  export default autocannon
}
