type T = {
  id: string;
  [key: string]: number | string;
};
export {};
