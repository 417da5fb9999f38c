// The little of Node.js this bot uses, declared here so that it builds with `tsc` alone (no
// @types/node to install). Add what you use, or `npm install --save-dev @types/node` and
// delete this file.
declare const process: {
  stdin: {
    setEncoding(encoding: "utf8"): void;
    on(event: "data", listener: (chunk: string) => void): void;
    on(event: "end", listener: () => void): void;
  };
  stdout: { write(text: string): boolean };
  stderr: { write(text: string): boolean };
  exit(code?: number): never;
};
