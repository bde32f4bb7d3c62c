/**
 * Preloaded (node --import) into a server the tests start as a child process
 * but do not own the code of (the MCP reference server): a server asked to
 * listen on a port alone listens on 127.0.0.1 instead of every interface,
 * and once listening it prints the port the OS gave it, so PORT=0 works.
 */
import net from "node:net";

export const PORT_LINE = "listening on loopback port ";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [port, host] = args;
  if ((typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) && typeof host !== "string") {
    args.splice(1, 0, "127.0.0.1");
  }
  this.once("listening", () => {
    const address = this.address();
    if (address && typeof address === "object") process.stderr.write(`\n${PORT_LINE}${address.port}\n`);
  });
  return listen.apply(this, args);
};
