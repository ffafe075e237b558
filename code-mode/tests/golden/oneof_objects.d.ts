type T = {
  kind: "circle";
  radius: number;
} | {
  kind: "square";
  side: number;
};
export {};
