declare const tools: {
  /** Line one. Line two. Indented *\/ closer /* opener. */
  a(args?: { [key: string]: unknown }): Promise<string>;
  b(args?: { [key: string]: unknown }): Promise<string>;
  /** Uses `backticks`, "quotes", <tags> & unicode ✓. */
  c(args?: { [key: string]: unknown }): Promise<string>;
};
export {};
