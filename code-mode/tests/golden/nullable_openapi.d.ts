type T = {
  name?: string | null;
  tags?: (string | null)[];
  obj?: {
    x?: number;
  } | null;
  notNullable?: string;
};
export {};
