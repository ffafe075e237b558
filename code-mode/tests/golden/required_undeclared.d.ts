type T = {
  a: string;
  b: unknown;
};
export {};
