type T = {
  value: number;
  next?: unknown;
};
export {};
