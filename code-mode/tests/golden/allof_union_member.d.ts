type T = (string | number) & (string | boolean);
export {};
