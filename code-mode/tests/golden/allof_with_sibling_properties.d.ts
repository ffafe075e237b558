type T = {
  id: string;
} & {
  tag?: string;
} & {
  extra: boolean;
};
export {};
