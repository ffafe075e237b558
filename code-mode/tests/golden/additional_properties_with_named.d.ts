type T = {
  a: string;
  b?: boolean;
  [key: string]: number | string | boolean | undefined;
};
export {};
