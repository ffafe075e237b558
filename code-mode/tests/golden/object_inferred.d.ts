type T = {
  a: string;
};
export {};
