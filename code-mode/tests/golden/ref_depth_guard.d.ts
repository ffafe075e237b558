type T = {
  longChain: unknown;
  shortChain: string;
};
export {};
