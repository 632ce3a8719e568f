import type { FastifyRequest } from 'fastify';
import { callUnary } from '@sightline/grpc-kit';
import type { queryV1 } from '@sightline/proto';
import {
  decodeFunnelReport,
  decodeQueryAnswer,
  encodeFunnelReportRequest,
  encodeQueryRequest,
  queryAnswerText,
  type FunnelReport,
  type FunnelReportRequest,
  type QueryAnswer,
  type QueryRequest,
} from '@sightline/query-contract';
import { callOptions } from '../edge/request-context.js';
import type { QueryAnswerCache } from '../caches/query-answer-cache.js';

/** What a report needs to know about its site, however the caller reached it (key, session, share hash). */
export interface ReportSite {
  siteId: number;
  timezone: string;
  weekStart: number;
  /** what event:goal resolves (ListGoals' goals as they are: the query service reads only these fields) */
  goals: readonly queryV1.QueryGoal[];
  /** `realtime` spans this many minutes instead of 30 (the live widget's 5; never from a request body) */
  realtimeMinutes?: number;
}

export interface PropsAnswerObject {
  props: Array<{ key: string; events: number }>;
  date_range: string[];
}

/**
 * The one way every query route asks the query service: the report site built from
 * what the route resolved, and the answer through the answer cache (single flight,
 * brief caching). The routes differ only in how they find and authorise the site.
 */
export class ReportQueries {
  constructor(
    private readonly query: queryV1.QueryServiceClient,
    private readonly answers: QueryAnswerCache,
    private readonly deadlineMs: number,
  ) {}

  /** POST /query's answer to `query` (parsed by the route, after the site checks). */
  async run(request: FastifyRequest, site: ReportSite, query: QueryRequest): Promise<QueryAnswer> {
    // a shorter realtime window is another answer: never one a POST /query realtime is served
    const asked = site.realtimeMinutes === undefined ? query : { query, realtimeMinutes: site.realtimeMinutes };
    const answerJson = await this.answers.answer({ ...keyOf(site), kind: 'query', request: asked }, async () => {
      const { answer } = await callUnary(
        this.query,
        this.query.query,
        'Query/Query',
        { site: reportSiteMessage(site), query: encodeQueryRequest(query) },
        callOptions(request, this.deadlineMs),
      );
      return queryAnswerText(answer);
    });
    return decodeQueryAnswer(answerJson);
  }

  /** A funnel's report; the steps are part of the key, so a funnel's answer never outlives its goals. */
  async funnel(request: FastifyRequest, site: ReportSite, report: FunnelReportRequest): Promise<FunnelReport> {
    const answerJson = await this.answers.answer({ ...keyOf(site), kind: 'funnel', request: report }, async () => {
      const { answer } = await callUnary(
        this.query,
        this.query.funnelReport,
        'Query/FunnelReport',
        { site: reportSiteMessage(site), report: encodeFunnelReportRequest(report) },
        callOptions(request, this.deadlineMs),
      );
      return queryAnswerText(answer);
    });
    return decodeFunnelReport(answerJson);
  }

  /** GET /props's answer; `rawDateRange` as the query string has it (`7d`, `start,end`). */
  async props(request: FastifyRequest, site: ReportSite, rawDateRange: string): Promise<PropsAnswerObject> {
    const dateRange = rawDateRange.includes(',') ? JSON.stringify(rawDateRange.split(',')) : rawDateRange;
    const answerJson = await this.answers.answer({ ...keyOf(site), kind: 'props', request: dateRange }, async () => {
      const answer = await callUnary(
        this.query,
        this.query.listProps,
        'Query/ListProps',
        { site: reportSiteMessage(site), dateRange },
        callOptions(request, this.deadlineMs),
      );
      const object: PropsAnswerObject = {
        props: answer.props.map((p) => ({ key: p.key, events: Number(p.events) })),
        date_range: [answer.dateRangeStart, answer.dateRangeEnd],
      };
      return JSON.stringify(object);
    });
    return JSON.parse(answerJson) as PropsAnswerObject;
  }
}

/** Only what the query service reads of the goals: a key route and a share route asking the same share the answer. */
function keyOf(site: ReportSite) {
  return {
    siteId: site.siteId,
    timezone: site.timezone,
    weekStart: site.weekStart,
    goals: site.goals.map((g) => [g.displayName, g.eventName ?? null, g.pagePath ?? null]),
  };
}

/** The report site as the query service takes it: the windows resolve against this instant. */
export function reportSiteMessage(site: ReportSite, now = new Date()): queryV1.ReportSite {
  return {
    siteId: site.siteId,
    timezone: site.timezone,
    weekStart: site.weekStart,
    now: now.toISOString(),
    goals: [...site.goals],
    ...(site.realtimeMinutes !== undefined ? { realtimeMinutes: site.realtimeMinutes } : {}),
  };
}
