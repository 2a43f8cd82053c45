/*
 * Copyright 2026 the original author or authors.
 *
 * Licensed under the Apache License, Version 2.0 (the "License");
 * you may not use this file except in compliance with the License.
 * You may obtain a copy of the License at
 *
 *      https://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */

package io.github.clustersingleton.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A TCP proxy on a local port in front of a server, which a test can cut (every
 * connection closed, new ones refused, as when the server goes away) and restore on the
 * same port, or turn into a black hole for the connections open at that moment (nothing
 * they send arrives, nothing comes back, nothing is closed: a network path that went dark
 * during a failover) while new connections go through.
 *
 * @author cluster-singleton contributors
 */
public final class TcpProxy implements AutoCloseable {

	private final InetSocketAddress target;

	private final int port;

	private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

	private final ExecutorService threads = Executors.newCachedThreadPool((runnable) -> {
		Thread thread = new Thread(runnable, "tcp-proxy");
		thread.setDaemon(true);
		return thread;
	});

	private volatile ServerSocket server;

	private final AtomicLong connections = new AtomicLong();

	private volatile long blackHoledBelow;

	private TcpProxy(InetSocketAddress target) throws IOException {
		this.target = target;
		this.server = listen(0);
		this.port = this.server.getLocalPort();
		accept(this.server);
	}

	/**
	 * Start a proxy in front of a server.
	 * @param host the server's host
	 * @param port the server's port
	 * @return the running proxy
	 * @throws IOException when no local port can be opened
	 */
	public static TcpProxy start(String host, int port) throws IOException {
		return new TcpProxy(new InetSocketAddress(host, port));
	}

	/**
	 * Return the local port clients connect to.
	 * @return the port
	 */
	public int getPort() {
		return this.port;
	}

	/**
	 * Close every connection and refuse new ones.
	 * @throws IOException on a failure to close the listening socket
	 */
	public synchronized void cut() throws IOException {
		this.server.close();
		for (Socket socket : this.sockets) {
			closeQuietly(socket);
		}
		this.sockets.clear();
	}

	/**
	 * Accept connections again, on the same port.
	 * @throws IOException when the port cannot be opened again
	 */
	public synchronized void restore() throws IOException {
		if (this.server.isClosed()) {
			this.server = listen(this.port);
			accept(this.server);
		}
	}

	/**
	 * Stop forwarding on every connection open now, in both directions, without closing
	 * any; connections opened later are forwarded as usual.
	 */
	public void blackHoleOpenConnections() {
		this.blackHoledBelow = this.connections.get();
	}

	@Override
	public void close() throws IOException {
		cut();
		this.threads.shutdownNow();
	}

	private static ServerSocket listen(int port) throws IOException {
		ServerSocket server = new ServerSocket();
		server.setReuseAddress(true);
		server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
		return server;
	}

	private void accept(ServerSocket server) {
		this.threads.execute(() -> {
			while (!server.isClosed()) {
				try {
					Socket client = server.accept();
					Socket upstream = new Socket();
					try {
						upstream.connect(this.target, 1000);
					}
					catch (IOException ex) {
						closeQuietly(client);
						closeQuietly(upstream);
						continue;
					}
					this.sockets.add(client);
					this.sockets.add(upstream);
					long connection = this.connections.getAndIncrement();
					this.threads.execute(() -> pipe(client, upstream, connection));
					this.threads.execute(() -> pipe(upstream, client, connection));
				}
				catch (IOException ex) {
					// closed by cut()
				}
			}
		});
	}

	private void pipe(Socket from, Socket to, long connection) {
		byte[] buffer = new byte[8192];
		try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
			int read;
			while ((read = in.read(buffer)) >= 0) {
				if (connection >= this.blackHoledBelow) {
					out.write(buffer, 0, read);
					out.flush();
				}
			}
		}
		catch (IOException ex) {
			// one side went away
		}
		finally {
			closeQuietly(from);
			closeQuietly(to);
			this.sockets.remove(from);
			this.sockets.remove(to);
		}
	}

	private static void closeQuietly(Socket socket) {
		try {
			socket.close();
		}
		catch (IOException ex) {
			// ignore
		}
	}

}
