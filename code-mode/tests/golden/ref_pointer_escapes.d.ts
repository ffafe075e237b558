type T = {
  slash?: string;
  tilde?: number;
  space?: boolean;
  pct?: null;
  badEscape?: unknown;
  badPercent?: unknown;
};
export {};
