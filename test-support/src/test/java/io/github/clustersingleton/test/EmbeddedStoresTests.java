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

import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Starts each store of the fourth fallback directly, whatever the other three would find.
 * As root, PostgreSQL and MariaDB must refuse with a message that says why.
 *
 * @author cluster-singleton contributors
 */
class EmbeddedStoresTests {

	@Test
	void postgres() throws Exception {
		if (EmbeddedStores.isRoot()) {
			assertThatIllegalStateException().isThrownBy(EmbeddedStores::startPostgres)
				.withMessageContaining("runs as root")
				.withMessageContaining("refuse to run as root");
			return;
		}
		String url = EmbeddedStores.startPostgres();
		assertThat(url).startsWith("jdbc:postgresql://127.0.0.1:");
		assertThat(query(url, "SELECT current_user")).isEqualTo("postgres");
	}

	@Test
	void mariaDb() throws Exception {
		if (EmbeddedStores.isRoot()) {
			assertThatIllegalStateException().isThrownBy(EmbeddedStores::startMariaDb)
				.withMessageContaining("runs as root")
				.withMessageContaining("refuse to run as root");
			return;
		}
		String url = EmbeddedStores.startMariaDb();
		assertThat(url).startsWith("jdbc:mariadb://127.0.0.1:");
		assertThat(query(url, "SELECT DATABASE()")).isEqualTo("test");
	}

	@Test
	void redis() throws Exception {
		URI url = URI.create(EmbeddedStores.startRedis());
		try (Socket socket = new Socket(url.getHost(), url.getPort())) {
			OutputStream out = socket.getOutputStream();
			out.write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
			InputStream in = socket.getInputStream();
			assertThat(new String(in.readNBytes(7), StandardCharsets.US_ASCII)).isEqualTo("+PONG\r\n");
		}
	}

	@Test
	void redisServerFromTheArtifactRuns() throws Exception {
		Path binary = EmbeddedStores.redisServerFromArtifact();
		assertThat(Files.isExecutable(binary)).isTrue();
		Process version = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
		assertThat(new String(version.getInputStream().readAllBytes(), StandardCharsets.UTF_8))
			.startsWith("Redis server v=");
		assertThat(version.waitFor()).isZero();
	}

	private static String query(String url, String sql) throws Exception {
		try (Connection connection = DriverManager.getConnection(url);
				Statement statement = connection.createStatement();
				ResultSet result = statement.executeQuery(sql)) {
			assertThat(result.next()).isTrue();
			return result.getString(1);
		}
	}

}
