type T = {
  strings: string[];
  anything?: unknown[];
  nothing?: [];
  matrix?: number[][];
  objects?: {
    id: string;
  }[];
  nullableItems?: (string | null)[];
  inferred?: boolean[];
};
export {};
