import { usageError } from "./errors";

const MAX_BYTES = 64 * 1024;

/**
 * Reads a secret from stdin. Piped input is read to its end; at a terminal the key is typed or
 * pasted without echo, so it lands neither in `ps`, shell history nor the scrollback.
 */
export function readSecretFromStdin(
  input: NodeJS.ReadStream = process.stdin,
  prompt: (text: string) => void = (t) => process.stderr.write(t),
): Promise<string> {
  return input.isTTY ? readHiddenLine(input, prompt) : readAll(input);
}

async function readAll(input: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of input) {
    const buffer = typeof chunk === "string" ? Buffer.from(chunk, "utf8") : Buffer.from(chunk);
    size += buffer.length;
    if (size > MAX_BYTES) throw usageError("stdin holds more than 64 KiB: it should hold only the private key");
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function readHiddenLine(input: NodeJS.ReadStream, prompt: (text: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (error?: Error) => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      prompt("\n");
      if (error) reject(error);
      else resolve(value);
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n" || ch === "\u0004") return finish();
        if (ch === "\u0003") return finish(usageError("Cancelled"));
        value = ch === "\u007f" || ch === "\b" ? value.slice(0, -1) : value + ch;
      }
    };
    prompt("Private key (input hidden, Enter to finish): ");
    input.setEncoding("utf8");
    input.setRawMode(true);
    input.on("data", onData);
    input.resume();
  });
}
