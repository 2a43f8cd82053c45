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
package io.github.clustersingleton.cluster.app;

import java.time.Duration;
import java.time.Instant;

import io.github.clustersingleton.ClusterSingleton;
import io.github.clustersingleton.ClusterSingletonContext;
import io.github.clustersingleton.ClusterSingletonTemplate;
import reactor.core.publisher.Mono;
import reactor.core.scheduler.Schedulers;

import org.springframework.beans.factory.annotation.Value;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * The application's jobs: a reactive guarded job whose runs take longer than its cron
 * period, and an unguarded fixed-rate method that runs code through
 * {@link ClusterSingletonTemplate}, once by job name and once for a slot of
 * {@link #TEMPLATE_SLOT}.
 *
 * @author cluster-singleton contributors
 * @since 0.1.0
 */
@Component
public class AppJobs {

	/** The slot length of the template call with a slot. */
	public static final Duration TEMPLATE_SLOT = Duration.ofSeconds(5);

	private final AppLedger ledger;

	private final ClusterSingletonTemplate template;

	private final String templateRunJob;

	private final ClusterSingletonTemplate.Job templateCallJob;

	private final Duration reactiveRun;

	private final Duration templateRun;

	public AppJobs(AppLedger ledger, ClusterSingletonTemplate template, @Value("${app.run-id}") String runId,
			@Value("${app.reactive-run}") Duration reactiveRun, @Value("${app.template-run}") Duration templateRun) {
		this.ledger = ledger;
		this.template = template;
		this.templateRunJob = runId + "-template-run";
		this.templateCallJob = ClusterSingletonTemplate.job(runId + "-template-call");
		this.reactiveRun = reactiveRun;
		this.templateRun = templateRun;
	}

	/**
	 * Every 2 seconds, a run of {@code app.reactive-run} (longer than the period): the
	 * lease is held from subscription to completion.
	 * @return the run
	 */
	@Scheduled(cron = "*/2 * * * * *", zone = "UTC")
	@ClusterSingleton(name = "${app.run-id}-reactive")
	public Mono<Void> reactive() {
		return Mono.deferContextual((context) -> {
			ClusterSingletonContext run = context.get(ClusterSingletonContext.class);
			return Mono.fromCallable(() -> this.ledger.start(run))
				.subscribeOn(Schedulers.boundedElastic())
				.delayUntil((id) -> Mono.delay(this.reactiveRun))
				.publishOn(Schedulers.boundedElastic())
				.doOnNext(this.ledger::end);
		}).then();
	}

	/**
	 * Not guarded: runs on every node, and the template decides where the code runs.
	 * @throws Exception if the call with a slot threw
	 */
	@Scheduled(fixedRate = 500)
	public void viaTemplate() throws Exception {
		this.template.runIfAcquired(this.templateRunJob, this::run);
		long seconds = TEMPLATE_SLOT.toSeconds();
		Instant slot = Instant.ofEpochSecond(Instant.now().getEpochSecond() / seconds * seconds);
		this.template.callIfAcquired(this.templateCallJob.slot(slot), this::run);
	}

	private long run() {
		long id = this.ledger.start(ClusterSingletonContext.current());
		try {
			Thread.sleep(this.templateRun.toMillis());
		}
		catch (InterruptedException ex) {
			Thread.currentThread().interrupt();
		}
		this.ledger.end(id);
		return id;
	}

}
