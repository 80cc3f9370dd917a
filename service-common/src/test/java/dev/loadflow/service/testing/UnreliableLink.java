package dev.loadflow.service.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP link to a server that a test can break the ways a network does: {@link #stall()} makes
 * it a black hole (every connection open now, and every one made until {@link #heal()}, goes
 * silent for good: bytes vanish, nothing is closed, as when a firewall or a NAT drops a
 * connection's state), {@link #reset()} cuts every connection with a TCP reset. Connections made
 * after {@code heal} flow again.
 */
public final class UnreliableLink implements AutoCloseable {

    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final Set<Link> links = ConcurrentHashMap.newKeySet();
    private volatile boolean stalled;

    private UnreliableLink(InetSocketAddress target) throws IOException {
        this.target = target;
        this.listener = new ServerSocket(0, 200, java.net.InetAddress.getLoopbackAddress());
        Thread.ofVirtual().name("unreliable-link-accept").start(this::accept);
    }

    /** A link to {@code host:port}, listening on a free local port. */
    public static UnreliableLink to(String host, int port) {
        try {
            return new UnreliableLink(new InetSocketAddress(host, port));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public int port() {
        return listener.getLocalPort();
    }

    /** Every connection open now and every one made from now goes silent for good. */
    public void stall() {
        stalled = true;
        links.forEach(link -> link.silent = true);
    }

    /** New connections flow again; those that went silent stay so. */
    public void heal() {
        stalled = false;
    }

    /** Cuts every open connection with a reset (as a restarting server or a failing-over proxy does). */
    public void reset() {
        links.forEach(Link::reset);
    }

    /** Connections open through the link now (silent ones included). */
    public int open() {
        return links.size();
    }

    @Override
    public void close() {
        try {
            listener.close();
        } catch (IOException ignored) {
            // closing
        }
        reset();
    }

    private void accept() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                Link link = new Link(client, stalled);
                links.add(link);
                Thread.ofVirtual().start(link::run);
            } catch (IOException e) {
                return;
            }
        }
    }

    private final class Link {
        private final Socket client;
        private volatile Socket server;
        private volatile boolean silent;

        Link(Socket client, boolean silent) {
            this.client = client;
            this.silent = silent;
        }

        void run() {
            try {
                if (silent) {
                    drain(client.getInputStream());
                    return;
                }
                server = new Socket();
                server.connect(target, 5_000);
                Thread.ofVirtual().start(() -> pump(server, client));
                pump(client, server);
            } catch (IOException e) {
                reset();
            }
        }

        /** Copies until either side ends; while silent, what arrives is dropped. */
        private void pump(Socket from, Socket to) {
            byte[] buffer = new byte[16 * 1024];
            try {
                InputStream in = from.getInputStream();
                OutputStream out = to.getOutputStream();
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    if (!silent) {
                        out.write(buffer, 0, n);
                        out.flush();
                    }
                }
                if (!silent) {
                    reset();
                }
            } catch (IOException e) {
                if (!silent) {
                    reset();
                }
            }
        }

        private void drain(InputStream in) throws IOException {
            byte[] buffer = new byte[16 * 1024];
            while (in.read(buffer) >= 0) {
                // a black hole
            }
        }

        void reset() {
            links.remove(this);
            for (Socket socket : new Socket[] {client, server}) {
                if (socket != null) {
                    try {
                        socket.setSoLinger(true, 0);
                        socket.close();
                    } catch (IOException ignored) {
                        // already gone
                    }
                }
            }
        }
    }
}
