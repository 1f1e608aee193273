export { waitFor } from '@vus/testing';
