type T = {
  tree?: {
    label: string;
    forest?: unknown[];
  };
  forest?: {
    label: string;
    forest?: unknown;
  }[];
};
export {};
