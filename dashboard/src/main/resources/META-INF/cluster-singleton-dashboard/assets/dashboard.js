/*
 * cluster-singleton dashboard. Reads and writes only through the clustersingleton
 * Actuator endpoint, whose URL the server writes into the page (data-endpoint), so the
 * endpoint's access rules and the application's security rules hold for the page too.
 */
(function () {
	'use strict';

	var body = document.body;
	var config = {
		endpoint: body.getAttribute('data-endpoint') || '',
		problem: body.getAttribute('data-endpoint-problem') || '',
		refreshMillis: Math.max(1000, parseInt(body.getAttribute('data-refresh-millis'), 10) || 5000),
		csrfHeader: body.getAttribute('data-csrf-header') || '',
		csrfToken: body.getAttribute('data-csrf-token') || ''
	};
	var HOUR = 3600 * 1000;
	var SVG = 'http://www.w3.org/2000/svg';
	// whether this user may write: null until the probe answered
	var writes = null;
	var controlsSupported = true;
	var cards = {};
	var timer = null;

	function $(id) {
		return document.getElementById(id);
	}

	function el(tag, attrs, children) {
		var node = document.createElement(tag);
		if (attrs) {
			Object.keys(attrs).forEach(function (key) {
				if (attrs[key] === null || attrs[key] === undefined || attrs[key] === false) {
					return;
				}
				if (key === 'text') {
					node.textContent = attrs[key];
				}
				else {
					node.setAttribute(key, attrs[key] === true ? '' : attrs[key]);
				}
			});
		}
		(children || []).forEach(function (child) {
			if (child !== null && child !== undefined) {
				node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
			}
		});
		return node;
	}

	function svg(tag, attrs, text) {
		var node = document.createElementNS(SVG, tag);
		Object.keys(attrs || {}).forEach(function (key) {
			node.setAttribute(key, attrs[key]);
		});
		if (text !== undefined) {
			node.textContent = text;
		}
		return node;
	}

	function clear(node) {
		while (node.firstChild) {
			node.removeChild(node.firstChild);
		}
		return node;
	}

	// ---------------------------------------------------------------- formatting

	function time(iso) {
		if (!iso) {
			return el('span', { 'class': 'muted', text: '–' });
		}
		var date = new Date(iso);
		return el('time', { datetime: iso, title: date.toISOString(), text: date.toLocaleString() + ' (' + ago(date) + ')' });
	}

	function ago(date) {
		var seconds = Math.round((Date.now() - date.getTime()) / 1000);
		var future = seconds < 0;
		seconds = Math.abs(seconds);
		var text = seconds < 60 ? seconds + ' s' : seconds < 3600 ? Math.round(seconds / 60) + ' min'
			: seconds < 172800 ? Math.round(seconds / 3600) + ' h' : Math.round(seconds / 86400) + ' d';
		return future ? 'in ' + text : text + ' ago';
	}

	function duration(millis) {
		if (millis === null || millis === undefined || isNaN(millis)) {
			return '–';
		}
		if (millis < 1000) {
			return millis + ' ms';
		}
		if (millis < 60000) {
			return (millis / 1000).toFixed(1) + ' s';
		}
		var minutes = Math.floor(millis / 60000);
		return minutes + ' min ' + Math.round((millis % 60000) / 1000) + ' s';
	}

	// an ISO-8601 duration as Jackson writes a java.time.Duration: PT0.0123S, PT-1.5S, PT1H2M
	function isoDuration(text) {
		var match = /^PT(?:(-?\d+)H)?(?:(-?\d+)M)?(?:(-?\d+(?:\.\d+)?)S)?$/.exec(text || '');
		if (!match) {
			return text || '–';
		}
		var millis = ((parseInt(match[1] || '0', 10) * 60 + parseInt(match[2] || '0', 10)) * 60
			+ parseFloat(match[3] || '0')) * 1000;
		return (millis < 0 ? '-' : '') + duration(Math.round(Math.abs(millis)));
	}

	function runMillis(run) {
		if (!run.startedAt) {
			return null;
		}
		var end = run.finishedAt ? Date.parse(run.finishedAt) : (run.state === 'running' ? Date.now() : null);
		return end === null ? null : Math.max(0, end - Date.parse(run.startedAt));
	}

	function stateOf(job) {
		if (job.state) {
			return job.state;
		}
		if (job.paused) {
			return 'paused';
		}
		if (job.lease && job.lease.live) {
			return 'running';
		}
		return job.overdue ? 'overdue' : 'idle';
	}

	// ---------------------------------------------------------------- HTTP

	function csrfHeaders(headers) {
		if (config.csrfHeader && config.csrfToken) {
			headers[config.csrfHeader] = config.csrfToken;
		}
		else {
			// Spring Security's CookieCsrfTokenRepository
			var match = document.cookie.match(/(?:^|;\s*)XSRF-TOKEN=([^;]+)/);
			if (match) {
				headers['X-XSRF-TOKEN'] = decodeURIComponent(match[1]);
			}
		}
		return headers;
	}

	function request(method, path, payload) {
		var headers = { 'Accept': 'application/json' };
		if (method !== 'GET') {
			csrfHeaders(headers);
		}
		if (payload !== undefined) {
			headers['Content-Type'] = 'application/json';
		}
		return fetch(config.endpoint + path, {
			method: method,
			headers: headers,
			credentials: 'same-origin',
			cache: 'no-store',
			body: payload === undefined ? undefined : JSON.stringify(payload)
		}).then(function (response) {
			return response.text().then(function (text) {
				var json = null;
				try {
					json = text ? JSON.parse(text) : null;
				}
				catch (ignored) {
					json = null;
				}
				return { status: response.status, ok: response.ok, json: json };
			});
		});
	}

	function failure(result) {
		if (result.status === 401) {
			return 'not signed in (401)';
		}
		if (result.status === 403) {
			return 'refused: this user may not do that (403)';
		}
		if (result.status === 405) {
			return 'writes are not allowed: management.endpoint.clustersingleton.access is not unrestricted (405)';
		}
		var message = result.json && (result.json.message || result.json.error);
		return (message ? message : 'HTTP ' + result.status) + ' (' + result.status + ')';
	}

	// Whether this user may write through the endpoint: a POST without an action, which
	// the endpoint refuses as bad input (400) when writes are allowed, without doing
	// anything; 405 when its access is read-only, 401/403 when security refuses it.
	function probeWrites() {
		return request('POST', '', {}).then(function (result) {
			return !(result.status === 401 || result.status === 403 || result.status === 404 || result.status === 405);
		}, function () {
			return false;
		});
	}

	// ---------------------------------------------------------------- rendering

	function showProblem(text) {
		var node = $('problem');
		node.textContent = text || '';
		node.hidden = !text;
	}

	function say(text, error) {
		var node = $('message');
		node.textContent = text;
		node.className = error ? 'message error' : 'message';
	}

	function renderSummary(data) {
		var summary = clear($('summary'));
		function item(label, value, field) {
			summary.appendChild(el('div', null, [el('dt', { text: label }), el('dd', { 'data-field': field, text: value })]));
		}
		item('store', data.backend || '–', 'backend');
		item('served by node', data.owner || '–', 'owner');
		if (data.clockOffset) {
			item('clock offset', isoDuration(data.clockOffset), 'clock-offset');
		}
		if (data.leader) {
			item('leader', (data.leader.leader || 'none') + ' (term ' + data.leader.term + ')', 'leader');
		}
	}

	function renderAccess() {
		var badge = $('access');
		badge.setAttribute('data-writes', String(writes === true && controlsSupported));
		badge.textContent = writes === null ? 'checking access…'
			: !writes ? 'read-only' : controlsSupported ? 'controls enabled' : 'read-only: this store keeps no controls';
		$('cluster-controls').hidden = !(writes && controlsSupported);
	}

	function fact(label, content, field) {
		var dd = el('dd', { 'data-field': field });
		if (typeof content === 'string') {
			dd.textContent = content;
		}
		else {
			dd.appendChild(content);
		}
		return el('div', null, [el('dt', { text: label }), dd]);
	}

	function createCard(name) {
		var id = 'job-' + name.replace(/[^A-Za-z0-9_-]/g, '_');
		var card = el('article', { 'class': 'job', 'data-job': name, 'aria-labelledby': id + '-title' });
		var state = el('span', { 'class': 'state', 'data-field': 'state' });
		card.appendChild(el('div', { 'class': 'job-head' }, [el('h3', { id: id + '-title', text: name }), state]));
		var facts = el('dl', { 'class': 'facts' });
		card.appendChild(facts);
		var controls = el('div', { 'class': 'job-controls', 'data-controls': name, hidden: true });

		var pauseForm = el('form', { 'class': 'controls', 'data-form': 'pause' });
		var reason = el('input', { type: 'text', name: 'reason', maxlength: '200', autocomplete: 'off',
			'aria-label': 'Reason for pausing ' + name, placeholder: 'reason (optional)' });
		var pause = el('button', { type: 'submit', 'data-action': 'pause', 'aria-label': 'Pause ' + name, text: 'Pause' });
		pauseForm.appendChild(reason);
		pauseForm.appendChild(pause);
		pauseForm.addEventListener('submit', function (event) {
			event.preventDefault();
			act(pause, 'POST', name, { action: 'pause', reason: reason.value || null }, 'Paused ' + name);
		});

		var resumeForm = el('form', { 'class': 'controls', 'data-form': 'resume' });
		var catchUp = el('input', { type: 'checkbox', name: 'catchUp' });
		var resume = el('button', { type: 'submit', 'data-action': 'resume', 'aria-label': 'Resume ' + name, text: 'Resume' });
		resumeForm.appendChild(el('label', null, [catchUp, ' catch up missed slots']));
		resumeForm.appendChild(resume);
		resumeForm.addEventListener('submit', function (event) {
			event.preventDefault();
			act(resume, 'POST', name, { action: 'resume', catchUp: catchUp.checked }, 'Resumed ' + name);
		});

		var runForm = el('form', { 'class': 'controls', 'data-form': 'run' });
		var run = el('button', { type: 'submit', 'class': 'secondary', 'data-action': 'run', 'aria-label': 'Run ' + name + ' now', text: 'Run now' });
		var release = el('button', { type: 'button', 'class': 'danger', 'data-action': 'force-release',
			'aria-label': 'Force-release the lease of ' + name, text: 'Force-release lease' });
		runForm.appendChild(run);
		runForm.appendChild(release);
		runForm.addEventListener('submit', function (event) {
			event.preventDefault();
			act(run, 'POST', name, { action: 'run' }, 'Run of ' + name + ' requested');
		});
		release.addEventListener('click', function () {
			if (window.confirm('Expire the lease of ' + name + ' now, whoever holds it? A run still going loses its lease.')) {
				act(release, 'DELETE', name, undefined, 'Lease of ' + name + ' force-released');
			}
		});

		var rescheduleForm = el('form', { 'class': 'controls', 'data-form': 'reschedule' });
		var cron = el('input', { type: 'text', name: 'cron', autocomplete: 'off', spellcheck: 'false',
			'aria-label': 'New cron expression for ' + name + ', empty to restore the annotation\'s',
			placeholder: 'cron, e.g. 0 */5 * * * * (empty: restore)' });
		var reschedule = el('button', { type: 'submit', 'class': 'secondary', 'data-action': 'reschedule',
			'aria-label': 'Reschedule ' + name, text: 'Reschedule' });
		rescheduleForm.appendChild(cron);
		rescheduleForm.appendChild(reschedule);
		rescheduleForm.addEventListener('submit', function (event) {
			event.preventDefault();
			var expression = cron.value.trim();
			act(reschedule, 'POST', name, { action: 'reschedule', cron: expression || null },
				expression ? name + ' rescheduled to ' + expression : 'Schedule of ' + name + ' restored');
		});

		controls.appendChild(pauseForm);
		controls.appendChild(resumeForm);
		controls.appendChild(runForm);
		controls.appendChild(rescheduleForm);
		card.appendChild(controls);
		var manual = el('div', { 'class': 'manual', 'data-field': 'manual-runs' });
		card.appendChild(manual);
		var runs = el('details', { 'class': 'runs', open: true });
		runs.appendChild(el('summary', { text: 'Recent runs (every node)' }));
		var runsBody = el('div', { 'class': 'table-wrap' });
		runs.appendChild(runsBody);
		card.appendChild(runs);
		return { card: card, state: state, facts: facts, controls: controls, pauseForm: pauseForm,
			resumeForm: resumeForm, rescheduleForm: rescheduleForm, manual: manual, runs: runsBody };
	}

	function updateCard(parts, job) {
		var state = stateOf(job);
		parts.state.textContent = state;
		parts.state.className = 'state state-' + state;
		parts.card.setAttribute('data-state', state);

		var facts = clear(parts.facts);
		var settings = job.settings || {};
		var schedule = (settings.schedule || []).join(', ') || 'no cron schedule';
		facts.appendChild(fact('schedule', schedule, 'schedule'));
		facts.appendChild(fact('cron override', job.cronOverride || 'none', 'cron-override'));
		facts.appendChild(fact('next fire time', time(job.nextFireTime), 'next-fire-time'));
		facts.appendChild(fact('last success', time(job.lastSuccess), 'last-success'));
		var lease = job.lease;
		facts.appendChild(fact('owner', lease && lease.live ? (lease.holder || '?') : 'none'
			+ (lease && lease.holder ? ' (last: ' + lease.holder + ')' : ''), 'owner'));
		facts.appendChild(fact('fencing token', lease ? String(lease.fencingToken) : '–', 'fencing-token'));
		if (job.paused) {
			facts.appendChild(fact('paused by', (job.pausedBy || '?') + (job.pauseReason ? ': ' + job.pauseReason : ''), 'paused-by'));
			facts.appendChild(fact('paused at', time(job.pausedAt), 'paused-at'));
		}
		if (job.overdue) {
			facts.appendChild(fact('overdue', 'no success within ' + isoDuration(settings.alertAfter), 'overdue'));
		}
		[['lease error', job.leaseError], ['run ledger error', job.historyError], ['controls error', job.controlsError]]
			.forEach(function (error) {
				if (error[1]) {
					var node = fact(error[0], error[1], 'error');
					node.className = 'error-text';
					facts.appendChild(node);
				}
			});

		parts.controls.hidden = !(writes && controlsSupported);
		parts.pauseForm.hidden = !!job.paused;
		parts.resumeForm.hidden = !job.paused;

		var manual = clear(parts.manual);
		var requests = job.manualRuns || [];
		if (requests.length) {
			var list = el('ul', { 'aria-label': 'Run-now requests of ' + job.name });
			requests.forEach(function (request) {
				list.appendChild(el('li', { 'data-manual-run': request.id, 'data-state': request.state }, [
					'run-now ', el('code', { text: String(request.id).substring(0, 8) }), ' ',
					el('span', { 'class': 'outcome-' + request.state, text: request.state }),
					' · asked by ' + (request.requestedBy || '?') + ' ',
					time(request.requestedAt),
					request.owner ? ' · on ' + request.owner : '',
					request.error ? el('span', { 'class': 'error-text', text: ' · ' + request.error }) : null
				]));
			});
			manual.appendChild(list);
		}

		var runs = clear(parts.runs);
		var history = job.history || [];
		if (!history.length) {
			runs.appendChild(el('p', { 'class': 'empty', text: 'No runs in the run ledger yet.' }));
			return;
		}
		var head = el('tr', null, ['node', 'slot', 'attempt', 'trigger', 'outcome', 'fencing token', 'started', 'duration']
			.map(function (label) {
				return el('th', { scope: 'col', text: label });
			}));
		var rows = history.slice(0, 10).map(function (run) {
			return el('tr', { 'data-run': run.fencingToken, 'data-trigger': run.trigger, 'data-outcome': run.state }, [
				el('td', { text: run.owner || '–' }),
				el('td', null, [run.slot ? time(run.slot) : el('span', { 'class': 'muted', text: 'no slot' })]),
				el('td', { 'class': 'num', text: String(run.attempt) }),
				el('td', { text: run.trigger }),
				el('td', { 'class': 'outcome-' + run.state, title: run.error || '', text: run.state }),
				el('td', { 'class': 'num', text: String(run.fencingToken) }),
				el('td', null, [time(run.startedAt)]),
				el('td', { 'class': 'num', text: duration(runMillis(run)) })
			]);
		});
		runs.appendChild(el('table', { 'aria-label': 'Recent runs of ' + job.name }, [el('thead', null, [head]), el('tbody', null, rows)]));
	}

	function renderJobs(data) {
		var container = $('jobs');
		var names = Object.keys(data.jobs || {});
		if (!names.length) {
			clear(container).appendChild(el('p', { 'class': 'empty', text: 'This application has no cluster-singleton jobs.' }));
			cards = {};
			return;
		}
		Array.prototype.slice.call(container.children).forEach(function (child) {
			if (!child.hasAttribute('data-job')) {
				container.removeChild(child);
			}
		});
		Object.keys(cards).forEach(function (name) {
			if (names.indexOf(name) < 0) {
				container.removeChild(cards[name].card);
				delete cards[name];
			}
		});
		names.forEach(function (name, index) {
			if (!cards[name]) {
				cards[name] = createCard(name);
			}
			// moved only when out of place: moving a card would take the focus from an
			// input the user is typing in
			if (container.children[index] !== cards[name].card) {
				container.insertBefore(cards[name].card, container.children[index] || null);
			}
			updateCard(cards[name], data.jobs[name]);
		});
	}

	function renderTimeline(data) {
		var now = Date.now();
		var from = now - HOUR;
		var runs = [];
		Object.keys(data.jobs || {}).forEach(function (name) {
			(data.jobs[name].history || []).forEach(function (run) {
				if (!run.startedAt || !run.owner || run.state === 'paused') {
					return;
				}
				var start = Date.parse(run.startedAt);
				var end = run.finishedAt ? Date.parse(run.finishedAt) : (run.state === 'running' ? now : start);
				if (end >= from) {
					runs.push({ job: name, run: run, start: Math.max(start, from), end: Math.min(Math.max(end, start), now) });
				}
			});
		});
		var nodes = runs.map(function (entry) {
			return entry.run.owner;
		}).filter(function (node, index, all) {
			return all.indexOf(node) === index;
		}).sort();
		var container = clear($('timeline'));
		if (!nodes.length) {
			container.appendChild(el('p', { 'class': 'empty', text: 'No runs in the last hour.' }));
			return;
		}
		var width = 1000, label = 150, lane = 26, top = 6, axis = 22;
		var height = top + nodes.length * lane + axis;
		var plot = width - label - 10;
		function x(millis) {
			return label + ((millis - from) / HOUR) * plot;
		}
		var root = svg('svg', { viewBox: '0 0 ' + width + ' ' + height, role: 'img',
			'aria-label': 'Timeline of the runs of the last hour: ' + runs.length + ' runs on ' + nodes.length + ' nodes' });
		root.appendChild(svg('title', {}, 'Runs per node over the last hour'));
		nodes.forEach(function (node, index) {
			var y = top + index * lane;
			root.appendChild(svg('rect', { 'class': 'lane', x: label, y: y + 3, width: plot, height: lane - 6, rx: 3 }));
			root.appendChild(svg('text', { 'class': 'node-label', x: 0, y: y + lane / 2 + 4 }, node.length > 22 ? node.substring(0, 21) + '…' : node));
		});
		for (var minutes = 0; minutes <= 60; minutes += 10) {
			var at = from + minutes * 60000;
			var gx = x(at);
			root.appendChild(svg('line', { 'class': 'gridline', x1: gx, x2: gx, y1: top, y2: top + nodes.length * lane }));
			var tick = new Date(at);
			root.appendChild(svg('text', { 'class': 'axis', x: gx, y: height - 6, 'text-anchor': minutes === 0 ? 'start' : minutes === 60 ? 'end' : 'middle' },
				minutes === 60 ? 'now' : String(tick.getHours()).padStart(2, '0') + ':' + String(tick.getMinutes()).padStart(2, '0')));
		}
		runs.forEach(function (entry) {
			var y = top + nodes.indexOf(entry.run.owner) * lane;
			var outcome = ['succeeded', 'running', 'failed', 'lost'].indexOf(entry.run.state) >= 0 ? entry.run.state : 'lost';
			var rect = svg('rect', { 'class': 'run-' + outcome, x: x(entry.start), y: y + 5,
				width: Math.max(3, x(entry.end) - x(entry.start)), height: lane - 10, rx: 2,
				'data-job': entry.job, 'data-outcome': entry.run.state });
			rect.appendChild(svg('title', {}, entry.job + ' on ' + entry.run.owner + ': ' + entry.run.state + ', ' + entry.run.trigger
				+ ', started ' + new Date(Date.parse(entry.run.startedAt)).toLocaleTimeString() + ', ' + duration(runMillis(entry.run))));
			root.appendChild(rect);
		});
		container.appendChild(root);
	}

	// ---------------------------------------------------------------- actions

	function act(button, method, job, payload, done) {
		button.disabled = true;
		say('…');
		request(method, '/' + encodeURIComponent(job), payload).then(function (result) {
			if (result.ok) {
				var id = result.json && result.json.run && result.json.run.id;
				say(done + (id ? ' (request ' + String(id).substring(0, 8) + ')' : ''));
			}
			else {
				say(job + ': ' + failure(result), true);
			}
		}, function (error) {
			say(job + ': ' + error, true);
		}).then(function () {
			button.disabled = false;
			refresh();
		});
	}

	function actOnAll(form, action) {
		form.addEventListener('submit', function (event) {
			event.preventDefault();
			var button = form.querySelector('button');
			var payload = action === 'pause' ? { action: 'pause', reason: form.elements.reason.value || null }
				: { action: 'resume', catchUp: form.elements.catchUp.checked };
			button.disabled = true;
			request('POST', '', payload).then(function (result) {
				say(result.ok ? (action === 'pause' ? 'Every job paused' : 'Every job resumed') : failure(result), !result.ok);
			}, function (error) {
				say(String(error), true);
			}).then(function () {
				button.disabled = false;
				refresh();
			});
		});
	}

	// ---------------------------------------------------------------- refresh loop

	function refresh() {
		if (timer) {
			clearTimeout(timer);
		}
		return request('GET', '').then(function (result) {
			if (!result.ok || !result.json) {
				showProblem('Could not read the clustersingleton endpoint at ' + config.endpoint + ': ' + failure(result));
				return;
			}
			showProblem('');
			controlsSupported = result.json.controlsSupported !== false;
			renderAccess();
			renderSummary(result.json);
			renderJobs(result.json);
			renderTimeline(result.json);
			$('updated').textContent = 'updated ' + new Date().toLocaleTimeString();
			body.setAttribute('data-loaded', 'true');
		})['catch'](function (error) {
			showProblem('Could not show the clustersingleton endpoint at ' + config.endpoint + ': ' + error);
		}).then(function () {
			timer = setTimeout(refresh, config.refreshMillis);
		});
	}

	if (!config.endpoint) {
		showProblem(config.problem || 'The clustersingleton endpoint cannot be reached from this page.');
		$('access').textContent = 'unavailable';
		clear($('jobs'));
		return;
	}
	actOnAll($('pause-all'), 'pause');
	actOnAll($('resume-all'), 'resume');
	probeWrites().then(function (allowed) {
		writes = allowed;
		body.setAttribute('data-writes', String(allowed));
		renderAccess();
		return refresh();
	});
}());
