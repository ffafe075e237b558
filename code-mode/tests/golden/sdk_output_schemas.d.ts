declare const tools: {
  /** Array result. */
  arrayOutput(args?: { [key: string]: unknown }): Promise<(string | number)[]>;
  /** Junk output schema. */
  junkOutput(args?: { [key: string]: unknown }): Promise<unknown>;
  /** Text result. */
  text(args?: { [key: string]: unknown }): Promise<string>;
  /** Typed result. */
  typed(args?: { [key: string]: unknown }): Promise<{
    ok: boolean;
    data?: string | null;
  }>;
};
export {};
