type T = {
  misspelt: unknown;
  partly: unknown;
  nonstring: unknown;
  empty: unknown;
};
export {};
