declare const tools: {
  /** Echo the text back. */
  echo(args: {
    text: string;
  }): Promise<string>;
  /** Search documents by query. */
  search(args: {
    /** What to look for. */
    query: string;
    limit?: number;
  }): Promise<{
    hits: {
      id: string;
      score: number;
    }[];
  }>;
};
export {};
