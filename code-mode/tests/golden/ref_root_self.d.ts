type T = {
  name: string;
  children?: unknown[];
};
export {};
