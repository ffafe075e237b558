type T = {
  closed?: [string, number];
  rest?: [string, ...number[]];
  open?: [string, ...unknown[]];
  empty?: [];
};
export {};
