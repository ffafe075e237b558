type T = {
  a?: unknown;
  b?: unknown;
};
export {};
