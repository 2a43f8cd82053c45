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

package io.github.clustersingleton.autoconfigure.jdbc;

import java.time.Duration;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ConditionalOnLeaseBackend;
import io.github.clustersingleton.jdbc.JdbcLeaseBackend;
import io.github.clustersingleton.jdbc.JdbcLeaseSchemaInitializer;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the JDBC lease backend: a lease
 * table in the application's {@link DataSource}, created at startup when
 * {@code cluster-singleton.jdbc.initialize-schema} asks for it.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = DataSourceAutoConfiguration.class, before = ClusterSingletonAutoConfiguration.class)
@ConditionalOnClass({ DataSource.class, JdbcTemplate.class, DatabaseInitializationMode.class })
@ConditionalOnSingleCandidate(DataSource.class)
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@ConditionalOnLeaseBackend("jdbc")
@EnableConfigurationProperties(JdbcLeaseProperties.class)
public final class JdbcLeaseAutoConfiguration {

	private static final Duration DEFAULT_LEASE_TTL = Duration.ofSeconds(30);

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	JdbcLeaseSchemaInitializer clusterSingletonJdbcSchemaInitializer(DataSource dataSource,
			JdbcLeaseProperties properties) {
		return newInitializer(dataSource, properties);
	}

	@Bean
	@ConditionalOnMissingBean
	@DependsOnDatabaseInitialization
	JdbcLeaseBackend clusterSingletonJdbcLeaseBackend(DataSource dataSource, JdbcLeaseProperties properties,
			ObjectProvider<JdbcLeaseSchemaInitializer> schemaInitializer, Environment environment) {
		try {
			JdbcLeaseBackend backend = new JdbcLeaseBackend(dataSource, properties.getTableName(),
					properties.getRunTableName());
			// the table is created (or checked) at startup only when jobs use this
			// backend
			backend.setSchemaInitializer(schemaInitializer.getIfAvailable());
			// a renewal that hangs must give up before the watchdog's next tick (every
			// TTL/3), so that tick can retry on a fresh connection
			backend.setRenewalTimeout(Binder.get(environment)
				.bind("cluster-singleton.lease-ttl", Duration.class)
				.orElse(DEFAULT_LEASE_TTL)
				.dividedBy(4));
			return backend;
		}
		catch (IllegalArgumentException ex) {
			throw new ClusterSingletonConfigurationException(ex.getMessage(), ex);
		}
	}

	private static JdbcLeaseSchemaInitializer newInitializer(DataSource dataSource, JdbcLeaseProperties properties) {
		try {
			return new JdbcLeaseSchemaInitializer(dataSource, properties.getTableName(), properties.getRunTableName(),
					properties.getInitializeSchema());
		}
		catch (IllegalArgumentException ex) {
			throw new ClusterSingletonConfigurationException(ex.getMessage(), ex);
		}
	}

}
