// A JeroMQ peer driven line by line over stdin/stdout by tests/interop/jeromq.py.
//
// Compiled at test time against Debian's libjeromq-java (JeroMQ 0.3.6, a port
// of libzmq 3.2 that speaks ZMTP/2.0). One process holds any number of named
// sockets; each command line gets exactly one reply line:
//
//   socket NAME TYPE            -> ok              (LINGER 0; TYPE as in ZMQ.PUSH)
//   option NAME identity HEX    -> ok              (also: subscribe, unsubscribe)
//   bind NAME ENDPOINT          -> ok PORT         (tcp://127.0.0.1:* picks a port)
//   connect NAME ENDPOINT       -> ok
//   send NAME FRAME[,FRAME...]  -> ok | err        (frames: hex, "-" empty, "*N" N pattern bytes)
//   recv NAME TIMEOUT_MS        -> msg FRAME[,...] | timeout
//   close NAME                  -> ok
//   quit                        -> bye
//
// Received frames of 64 bytes or more that equal the "*N" pattern come back as
// "*N", so large messages need no hex on the pipe. Anything unexpected
// answers "error <text>" and the process carries on.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.zeromq.ZMQ;

public final class JeroPeer {
    private static final Map<String, Integer> TYPES = new HashMap<>();

    static {
        TYPES.put("PAIR", ZMQ.PAIR);
        TYPES.put("PUB", ZMQ.PUB);
        TYPES.put("SUB", ZMQ.SUB);
        TYPES.put("REQ", ZMQ.REQ);
        TYPES.put("REP", ZMQ.REP);
        TYPES.put("DEALER", ZMQ.DEALER);
        TYPES.put("ROUTER", ZMQ.ROUTER);
        TYPES.put("PULL", ZMQ.PULL);
        TYPES.put("PUSH", ZMQ.PUSH);
        TYPES.put("XPUB", ZMQ.XPUB);
        TYPES.put("XSUB", ZMQ.XSUB);
    }

    private final ZMQ.Context ctx = ZMQ.context(1);
    private final Map<String, ZMQ.Socket> sockets = new HashMap<>();

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, "US-ASCII"));
        PrintStream out = new PrintStream(System.out, false, "US-ASCII");
        JeroPeer peer = new JeroPeer();
        out.println("ready");
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            String reply;
            try {
                reply = peer.handle(line.trim().split(" "));
            } catch (RuntimeException e) {
                reply = "error " + e;
            }
            out.println(reply);
            out.flush();
            if (reply.equals("bye")) {
                break;
            }
        }
        peer.shutdown();
    }

    private String handle(String[] w) {
        switch (w[0]) {
            case "socket": {
                ZMQ.Socket s = ctx.socket(TYPES.get(w[2]));
                s.setLinger(0);
                sockets.put(w[1], s);
                return "ok";
            }
            case "option": {
                ZMQ.Socket s = sockets.get(w[1]);
                byte[] value = unhex(w.length > 3 ? w[3] : "-");
                if (w[2].equals("identity")) {
                    s.setIdentity(value);
                } else if (w[2].equals("subscribe")) {
                    s.subscribe(value);
                } else if (w[2].equals("unsubscribe")) {
                    s.unsubscribe(value);
                } else {
                    return "error unknown option " + w[2];
                }
                return "ok";
            }
            case "bind": {
                ZMQ.Socket s = sockets.get(w[1]);
                if (w[2].endsWith(":*")) {
                    return "ok " + s.bindToRandomPort(w[2].substring(0, w[2].length() - 2));
                }
                s.bind(w[2]);
                return "ok " + w[2].substring(w[2].lastIndexOf(':') + 1);
            }
            case "connect":
                sockets.get(w[1]).connect(w[2]);
                return "ok";
            case "send": {
                ZMQ.Socket s = sockets.get(w[1]);
                String[] frames = w[2].split(",", -1);
                for (int i = 0; i < frames.length; i++) {
                    int flags = i < frames.length - 1 ? ZMQ.SNDMORE : 0;
                    if (!s.send(frame(frames[i]), flags)) {
                        return "err";
                    }
                }
                return "ok";
            }
            case "recv": {
                ZMQ.Socket s = sockets.get(w[1]);
                s.setReceiveTimeOut(Integer.parseInt(w[2]));
                List<String> parts = new ArrayList<>();
                do {
                    byte[] data = s.recv(0);
                    if (data == null) {
                        return parts.isEmpty() ? "timeout" : "error partial message";
                    }
                    parts.add(show(data));
                } while (s.hasReceiveMore());
                return "msg " + String.join(",", parts);
            }
            case "close":
                sockets.remove(w[1]).close();
                return "ok";
            case "quit":
                return "bye";
            default:
                return "error unknown command " + w[0];
        }
    }

    private void shutdown() {
        for (ZMQ.Socket s : sockets.values()) {
            s.close();
        }
        ctx.term();
    }

    private static byte pattern(int i) {
        return (byte) (i % 251);
    }

    private static byte[] frame(String spec) {
        if (spec.startsWith("*")) {
            byte[] data = new byte[Integer.parseInt(spec.substring(1))];
            for (int i = 0; i < data.length; i++) {
                data[i] = pattern(i);
            }
            return data;
        }
        return unhex(spec);
    }

    private static String show(byte[] data) {
        if (data.length >= 64) {
            boolean same = true;
            for (int i = 0; i < data.length && same; i++) {
                same = data[i] == pattern(i);
            }
            if (same) {
                return "*" + data.length;
            }
        }
        if (data.length == 0) {
            return "-";
        }
        StringBuilder sb = new StringBuilder(data.length * 2);
        for (byte b : data) {
            sb.append(Character.forDigit((b >> 4) & 0xf, 16)).append(Character.forDigit(b & 0xf, 16));
        }
        return sb.toString();
    }

    private static byte[] unhex(String s) {
        if (s.equals("-")) {
            return new byte[0];
        }
        byte[] out = new byte[s.length() / 2];
        for (int i = 0; i < out.length; i++) {
            out[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return out;
    }
}
