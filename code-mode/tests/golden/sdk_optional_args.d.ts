declare const tools: {
  /** Only optional properties. */
  allOptional(args?: {
    path?: string;
  }): Promise<string>;
  /** Closed object with no properties. */
  closedEmpty(args?: { [key: string]: never }): Promise<string>;
  /** Schema {}. */
  emptySchema(args?: unknown): Promise<string>;
  /** Schema false. */
  falseSchema(args: never): Promise<string>;
  /** At least one property. */
  minProperties(args: { [key: string]: string }): Promise<string>;
  /** Object with no properties. */
  noProperties(args?: { [key: string]: unknown }): Promise<string>;
  /** Schema null (junk). */
  nullSchema(args?: unknown): Promise<string>;
  /** Arguments behind a $ref. */
  refRoot(args?: {
    a?: string;
  }): Promise<string>;
  /** Required through allOf. */
  requiredInAllOf(args: {
    a: string;
  }): Promise<string>;
  /** A required property. */
  someRequired(args: {
    path: string;
  }): Promise<string>;
  /** Not an object. */
  stringSchema(args: string): Promise<string>;
  /** Schema true. */
  trueSchema(args?: unknown): Promise<string>;
  /** Arguments as a union. */
  unionArgs(args: {
    a: string;
  } | {
    b: string;
  }): Promise<string>;
};
export {};
