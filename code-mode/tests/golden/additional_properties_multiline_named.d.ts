type T = {
  nested?: {
    x?: number;
  };
  [key: string]: unknown;
};
export {};
