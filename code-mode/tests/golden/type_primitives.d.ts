type T = {
  s: string;
  n: number;
  i: number;
  b: boolean;
  z: null;
};
export {};
