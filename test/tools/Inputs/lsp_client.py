"""A language client in a few lines: drives a language server over stdio
with the protocol's own framing (Content-Length headers, JSON-RPC 2.0), as
an editor does, and prints what it answers, one line per fact, for
FileCheck.

  python3 lsp_client.py SERVER FILE.mlir LINE:CHARACTER

Opens FILE (didOpen), prints each diagnostic the server publishes (its
line, character and message), then the hover at LINE:CHARACTER (0-based),
then shuts the server down and prints its exit status; an error reply or an
error line in the server's log prints as "server error: ...".
"""
import json
import subprocess
import sys
import tempfile


class Client:
    def __init__(self, command):
        # The server's log (I[...] info, E[...] errors), read at the end.
        self.log = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(command, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.log)
        self.next_id = 0
        self.notices = []  # messages read while waiting for another

    def send(self, message):
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body))
        self.proc.stdin.write(body)
        self.proc.stdin.flush()

    def receive(self):
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise SystemExit("the server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        if length is None:
            raise SystemExit("a message without Content-Length")
        return json.loads(self.proc.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method,
                   "params": params})
        while True:
            message = self.receive()
            if message.get("id") == self.next_id and "method" not in message:
                if "error" in message:
                    print("server error: %s failed: %s" % (
                        method, message["error"].get("message")))
                return message
            self.notices.append(message)

    def notify(self, method, params):
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_for(self, method):
        for i, message in enumerate(self.notices):
            if message.get("method") == method:
                return self.notices.pop(i)
        while True:
            message = self.receive()
            if message.get("method") == method:
                return message
            self.notices.append(message)


def main():
    server, path, where = sys.argv[1], sys.argv[2], sys.argv[3]
    line, character = (int(x) for x in where.split(":"))
    uri = "file://" + path
    client = Client([server])
    init = client.request("initialize", {"processId": None, "rootUri": None,
                                         "capabilities": {}})
    caps = init["result"]["capabilities"]
    print("initialized: hover %s, definition %s" % (
        bool(caps.get("hoverProvider")), bool(caps.get("definitionProvider"))))
    client.notify("initialized", {})
    with open(path) as f:
        text = f.read()
    client.notify("textDocument/didOpen", {"textDocument": {
        "uri": uri, "languageId": "mlir", "version": 1, "text": text}})
    diags = client.wait_for("textDocument/publishDiagnostics")["params"]
    for d in diags["diagnostics"]:
        start = d["range"]["start"]
        print("diagnostic %d:%d: %s" % (start["line"], start["character"],
                                        d["message"]))
    if not diags["diagnostics"]:
        print("no diagnostics")
    hover = client.request("textDocument/hover", {
        "textDocument": {"uri": uri},
        "position": {"line": line, "character": character}})
    result = hover.get("result")
    if result:
        for text_line in result["contents"]["value"].splitlines():
            if text_line.strip():
                print("hover: " + text_line)
    else:
        print("no hover")
    client.request("shutdown", None)
    client.notify("exit", None)
    print("exit status %d" % client.proc.wait(timeout=30))
    # Errors the server logged (a message it could not handle, say).
    client.log.seek(0)
    for line in client.log.read().decode(errors="replace").splitlines():
        if line.startswith("E["):
            print("server error: " + line)


if __name__ == "__main__":
    main()
