type T = {
  from: {
    x: number;
    y: number;
  };
  to: {
    x: number;
    y: number;
  };
};
export {};
