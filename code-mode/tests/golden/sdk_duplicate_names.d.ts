declare const tools: {
  /** First. */
  dup(args: {
    a: string;
  }): Promise<string>;
  /** Second. */
  dup(args: {
    b: number;
  }): Promise<string>;
};
export {};
