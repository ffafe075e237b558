type T = {
  a: string;
} | {
  b: string;
};
export {};
