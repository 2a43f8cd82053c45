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

package io.github.clustersingleton.autoconfigure.shedlock;

import java.time.Duration;
import java.util.Map;
import java.util.function.Function;

import javax.sql.DataSource;

import io.github.clustersingleton.ClusterSingletonConfigurationException;
import io.github.clustersingleton.autoconfigure.ClusterSingletonAutoConfiguration;
import io.github.clustersingleton.autoconfigure.ClusterSingletonProperties;
import io.github.clustersingleton.autoconfigure.JobProperties;
import io.github.clustersingleton.autoconfigure.LeaseBackendDecorator;
import io.github.clustersingleton.lease.JobDefinition;
import io.github.clustersingleton.lease.JobRegistry;
import io.github.clustersingleton.shedlock.ShedLockLeaseBackend;
import io.github.clustersingleton.shedlock.ShedLockTable;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnProperty;
import org.springframework.context.annotation.Bean;

/**
 * {@link EnableAutoConfiguration Auto-configuration} of the bridge to ShedLock, on while
 * {@code cluster-singleton.shedlock.table-name} is set: ShedLock's table in the
 * application's {@link DataSource}, whatever the lease store. The engine wraps its lease
 * store with it ({@link ShedLockLeaseBackend}), through a {@link LeaseBackendDecorator}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@AutoConfiguration(after = ClusterSingletonAutoConfiguration.class,
		afterName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
@ConditionalOnBooleanProperty(name = "cluster-singleton.enabled", matchIfMissing = true)
@ConditionalOnProperty(ShedLockTable.TABLE_NAME_PROPERTY)
public final class ShedLockBridgeAutoConfiguration {

	@Bean
	@ConditionalOnMissingBean
	ShedLockTable clusterSingletonShedLockTable(ClusterSingletonProperties properties,
			ObjectProvider<DataSource> dataSources) {
		String tableName = ShedLockTable.validateTableName(properties.getShedlock().getTableName());
		DataSource dataSource = dataSources.getIfUnique();
		if (dataSource == null) {
			throw new ClusterSingletonConfigurationException(ShedLockTable.TABLE_NAME_PROPERTY + " is set ('"
					+ tableName + "') but the application has no single DataSource bean: the ShedLock bridge keeps "
					+ "ShedLock's locks in ShedLock's table, in the database the ShedLock nodes use. Configure that "
					+ "DataSource (spring.datasource.*), or unset " + ShedLockTable.TABLE_NAME_PROPERTY
					+ " to turn the bridge off");
		}
		return new ShedLockTable(dataSource, tableName);
	}

	/**
	 * Wrap the lease store so that every run of a job also holds ShedLock's lock of the
	 * job: the lock's name is {@code cluster-singleton.jobs.<name>.shedlock-name}, else
	 * the job's name, and it is held for the job's {@code lockAtMostFor}.
	 * @param table ShedLock's table
	 * @param properties the bound properties
	 * @param registry the registered jobs
	 * @return the decorator
	 */
	@Bean
	LeaseBackendDecorator clusterSingletonShedLockBridge(ShedLockTable table, ClusterSingletonProperties properties,
			ObjectProvider<JobRegistry> registry) {
		Function<String, String> lockNames = (name) -> {
			Map.Entry<String, JobProperties> entry = ClusterSingletonAutoConfiguration.findJob(properties, name);
			String lockName = (entry != null) ? entry.getValue().getShedlockName() : null;
			return (lockName != null) ? lockName : name;
		};
		Function<String, Duration> lockAtMostFor = (
				name) -> registry.getObject().forName(name).map(JobDefinition::lockAtMostFor).orElseGet(() -> {
					Map.Entry<String, JobProperties> entry = ClusterSingletonAutoConfiguration.findJob(properties,
							name);
					Duration configured = (entry != null) ? entry.getValue().getLockAtMostFor() : null;
					return (configured != null) ? configured : properties.getDefaultLockAtMostFor();
				});
		String leaderLease = properties.getLeader().isEnabled() ? properties.getLeader().getLeaseName() : null;
		return (backend) -> new ShedLockLeaseBackend(backend, table, lockNames, lockAtMostFor, leaderLease);
	}

}
