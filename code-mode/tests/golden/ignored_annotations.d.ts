type T = {
  url?: string;
  count?: number;
  notX?: string;
};
export {};
