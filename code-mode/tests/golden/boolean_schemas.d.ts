type T = {
  t?: unknown;
  f: never;
};
export {};
