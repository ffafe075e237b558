type T = {
  only?: string;
};
export {};
