/** Result-set page tokens live in @vus/core (classify-service pages its result sets the same way). */
export { newResultSetId, pageToken, parsePageToken, slicePage, type PageSlice } from '@vus/core';
