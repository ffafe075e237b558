type T = {
  kind: "fixed";
  neg?: -1;
  negs?: (-1)[];
  big?: 1e+100;
  huge?: 18446744073709551615;
  frac?: 0.1;
  nul?: null;
  obj?: { a: [1, { b: null }]; "c d": true };
  wrongType?: never;
};
export {};
