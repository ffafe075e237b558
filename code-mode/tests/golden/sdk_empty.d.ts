declare const tools: {
};
export {};
