type T = {
  [key: string]: {
    count: number;
  };
};
export {};
