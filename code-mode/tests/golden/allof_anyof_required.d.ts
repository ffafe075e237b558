type T = ({
  path: unknown;
} | {
  url: unknown;
}) & {
  path?: string;
  url?: string;
};
export {};
