type T = {
  a: string;
} & {
  b?: number;
};
export {};
