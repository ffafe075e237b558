type T = {
  a?: "x" | "y";
  sameAsA?: "x" | "y";
  firstOf?: { [key: string]: unknown };
  leadingZero?: unknown;
};
export {};
