declare const tools: {
  /** Input and output each resolve $ref against their own root. */
  scoped(args: {
    t: string;
  }): Promise<{
    t: number;
    self?: unknown;
  }>;
};
export {};
