import type { AnalyzeClient, ClassifyClient, EmbedClient, IndexClient, SearchClient, TaskClient } from '@vus/clients';

export {
  createAnalyzeClient,
  createClassifyClient,
  createEmbedClient,
  createIndexClient,
  createSearchClient,
  createTaskClient,
  type AnalyzeClient,
  type ClassifyClient,
  type EmbedClient,
  type IndexClient,
  type SearchClient,
  type TaskClient,
} from '@vus/clients';

/** The downstream services the routes call. */
export interface Clients {
  index: IndexClient;
  /** Absent when no task-service is configured: the task endpoints answer 501. */
  task?: TaskClient | undefined;
  /** Absent when no search-service is configured: the search endpoints answer 501. */
  search?: SearchClient | undefined;
  /** Absent when no analyze-service is configured: the text generation endpoints answer 501. */
  analyze?: AnalyzeClient | undefined;
  /** Absent when no embed-service is configured: the embedding endpoints answer 501. */
  embed?: EmbedClient | undefined;
  /** Absent when no classify-service is configured: the classify endpoints answer 501. */
  classify?: ClassifyClient | undefined;
}
